"""Presentation without Panel: text, numbers, names and the HoloViews charts, used by the views and the reports alike."""
