"""The Chainlit chat: handlers (app.py), what the reader sees (render.py, sources.py), history and login, launch."""
