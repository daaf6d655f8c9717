"""The shortener's views, one module per concern: sessions, links, statistics."""
