"""Record normalisation: the service's loose JSON strings as numbers, dates, decoded text and labels.

The labels and value readers load without pandas (the demo simulator reads the spellings table);
the record kinds and frames (`kinds`, which needs pandas) load on first use of one of their names.
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

_KINDS_NAMES = frozenset({
    "ADDED_FIELDS",
    "APPROVAL_ACTIVE",
    "APPROVAL_EXPIRED",
    "APPROVAL_NO_EXPIRY",
    "NAV_TOTAL_ASSETLIAB_ID",
    "RECORD_KINDS",
    "SPEC_FIELDS",
    "UNREQUESTED_KINDS",
    "field_type",
    "frame_columns",
    "normalise_payload",
    "normalise_record",
    "records_frame",
    "split_fee_type",
})


def __getattr__(name: str):
    if name in _KINDS_NAMES:
        from dashboard.records import kinds

        return getattr(kinds, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
