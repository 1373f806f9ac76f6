"""The JSON HTTP API: routes (the app), models, security (keys, rate limits), sse, passages (index-side answers)."""
