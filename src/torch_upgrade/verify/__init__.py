"""--verify: the fixes judged by the project's own tests (the command, bisection, the session)."""
