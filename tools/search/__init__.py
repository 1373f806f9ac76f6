"""Finding passages: query analysis, hybrid retrieval and its fusion, sutta cards, vocabulary bridges, names and
aliases, reranking, and the windows of lines that answer a question."""
