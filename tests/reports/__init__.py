"""Tests of the HTML reports."""
