"""SEC Thailand Open API dashboard: API client, data models, Panel views and reports."""

__version__ = "0.1.0"
