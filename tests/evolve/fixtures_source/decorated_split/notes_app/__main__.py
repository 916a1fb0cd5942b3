"""Start the notes server: importing the tool module registers its tools."""

from notes_app import text_tools  # noqa: F401  (registers tools)
from notes_app.app import server

if __name__ == "__main__":
    server.run()
