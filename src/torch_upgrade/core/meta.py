"""The tool's own identity."""

VERSION = "0.1.0"
