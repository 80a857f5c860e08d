"""Writers: the document as JSON (the contract), as bilingual Markdown, and the run's index."""
