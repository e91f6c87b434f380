"""``torch-upgrade lsp``: a language server over stdio (pygls), for editors.

It publishes the findings of each open Python document as diagnostics (on open, change and
save), explains a finding's rule on hover, and offers code actions: a quick fix per fix, a
"suppress on this line" comment, and "fix all safe" (``source.fixAll.torch-upgrade``).
The configuration and torch pin are resolved from each document's path, as the CLI does.
docs/editors.md shows how to set it up in VS Code and Neovim.
"""

from __future__ import annotations


def main() -> None:
    """Run the language server on stdin and stdout until the client asks it to exit."""
    from torch_upgrade.lsp.server import serve  # pygls is loaded only by the server

    serve()
