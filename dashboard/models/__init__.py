"""Param models that fetch, cache and shape the data; they never import Panel."""

from dashboard.models.factsheet import FundFactsheet
from dashboard.models.licensee import LicenceCheck
from dashboard.models.search import FundSearch
from dashboard.models.source import default_client

__all__ = ["FundFactsheet", "FundSearch", "LicenceCheck", "default_client"]
