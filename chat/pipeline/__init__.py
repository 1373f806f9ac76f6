"""The answer pipeline: one question in, a checked, cited `Answer` out. Imports neither chat.ui nor chat.api."""
