"""Record normalisation: the service's loose JSON strings as numbers, dates, decoded text and labels.

The labels and value readers load without pandas (the demo simulator reads the spellings table);
the record kinds, their fields and frames (`kinds`, `fields`, `derived`, `frames`, which needs pandas)
load on first use of one of their names.
"""

from dashboard.records.labels import (
    ENUMS,
    FUND_STATUS,
    INVEST_COUNTRY_FLAG,
    PERFORMANCE_KIND,
    PRIVILEGE_TYPE,
    PROJ_RETAIL_TYPE,
    PROJ_TERM_FLAG,
    REDEMP_PERIOD,
    REFERENCE_PERIOD,
    REFERENCE_PERIOD_ORDER,
    RISK_LEVEL,
    RISK_RANK,
    RISK_SPECTRUM,
    label,
    normalise_risk_code,
    performance_kind,
    reference_period_key,
)
from dashboard.records.licence_labels import (
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
)
from dashboard.records.values import (
    clean_text,
    decode_base64_text,
    is_placeholder,
    single_number,
    to_iso_date,
    to_iso_datetime,
    to_number,
)

__all__ = [
    "ADDED_FIELDS",
    "APPROVAL_ACTIVE",
    "APPROVAL_EXPIRED",
    "APPROVAL_NO_EXPIRY",
    "ENFORCEMENT_DATE_MEANING",
    "ENFORCEMENT_DETAILS_MEANING",
    "ENFORCEMENT_REMARK_MEANING",
    "ENUMS",
    "FUND_STATUS",
    "INVEST_COUNTRY_FLAG",
    "NAV_TOTAL_ASSETLIAB_ID",
    "PERFORMANCE_KIND",
    "PRIVILEGE_TYPE",
    "PROJ_RETAIL_TYPE",
    "PROJ_TERM_FLAG",
    "RECORD_KINDS",
    "REDEMP_PERIOD",
    "REFERENCE_PERIOD",
    "REFERENCE_PERIOD_ORDER",
    "RISK_LEVEL",
    "RISK_RANK",
    "RISK_SPECTRUM",
    "SPEC_FIELDS",
    "UNREQUESTED_KINDS",
    "clean_text",
    "decode_base64_text",
    "field_type",
    "frame_columns",
    "is_placeholder",
    "label",
    "normalise_payload",
    "normalise_record",
    "normalise_risk_code",
    "performance_kind",
    "records_frame",
    "reference_period_key",
    "single_number",
    "split_fee_type",
    "to_iso_date",
    "to_iso_datetime",
    "to_number",
]

# Where each lazily loaded name lives; `frames` needs pandas, so none of them loads with the package.
_LAZY_NAMES = {
    "ADDED_FIELDS": "fields",
    "APPROVAL_ACTIVE": "derived",
    "APPROVAL_EXPIRED": "derived",
    "APPROVAL_NO_EXPIRY": "derived",
    "NAV_TOTAL_ASSETLIAB_ID": "fields",
    "RECORD_KINDS": "fields",
    "SPEC_FIELDS": "fields",
    "UNREQUESTED_KINDS": "fields",
    "field_type": "fields",
    "frame_columns": "frames",
    "normalise_payload": "kinds",
    "normalise_record": "kinds",
    "records_frame": "frames",
    "split_fee_type": "derived",
}


def __getattr__(name: str):
    if name in _LAZY_NAMES:
        import importlib

        return getattr(importlib.import_module(f"dashboard.records.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
