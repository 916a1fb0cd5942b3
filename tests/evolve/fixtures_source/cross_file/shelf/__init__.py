"""A bookshelf server whose tool schemas, handlers and wiring live in three modules."""
