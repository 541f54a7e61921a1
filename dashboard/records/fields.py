"""Each record kind's fields as the specification lists them, and the value type of each field.

A normalised record holds its kind's specification fields (`SPEC_FIELDS`) in that order, then the
fields the product adds (`ADDED_FIELDS`); `field_type` says how each is read (`convert`) and typed
in a frame (`frames`).
"""

from __future__ import annotations

# Each kind's fields as the specification lists them, in its order.
SPEC_FIELDS: dict[str, tuple[str, ...]] = {
    "fund": (
        "last_upd_date", "proj_id", "regis_id", "regis_date", "cancel_date", "proj_name_th", "proj_name_en",
        "proj_abbr_name", "fund_status", "unique_id", "permit_us_investment", "invest_country_flage",
    ),
    "unit_class": ("proj_id", "last_upd_date", "proj_abbr_name", "class_abbr_name", "class_name", "class_additional_desc"),
    "investment": (
        "last_upd_date", "minimum_sub_ipo", "minimum_sub_ipo_cur", "minimum_sub_ipo_addi_desc", "minimum_sub",
        "minimum_sub_cur", "minimum_sub_addi_desc", "minimum_redempt", "minimum_redempt_cur",
        "minimum_redempt_addi_desc", "minimum_redempt_unit", "minimum_redempt_unit_addi_desc", "lowbal_val",
        "lowbal_val_cur", "lowbal_unit",
    ),
    "holding": (
        "last_upd_date", "as_of_date", "assetliab_id", "issue_code", "isin_code", "issuer", "assetliab_value",
        "percent_nav",
    ),
    "project_type": ("last_upd_date", "proj_retail_type", "proj_term_flag", "proj_term_dd", "proj_term_mm", "proj_term_yy"),
    "suitability": (
        "last_upd_date", "fund_suitable_desc", "fund_not_suitable_desc", "important_notice", "risk_spectrum_desc",
        "risk_spectrum",
    ),
    "return_estimate": (
        "last_upd_date", "total_estimated_return", "annual_estimated_expense", "annual_average_return",
        "investment_period_year", "investment_period_month",
    ),
    "performance": (
        "last_upd_date", "class_abbr_name", "performance_type_desc", "reference_period", "performance_val", "as_of_date",
    ),
    "redemption": (
        "last_upd_date", "redemp_period", "redemp_period_oth", "settlement_period", "buying_cut_off_time",
        "selling_cut_off_time",
    ),
    "fee": (
        "last_upd_date", "class_abbr_name", "fee_type_desc", "rate", "rate_unit", "actual_value", "actual_value_unit",
        "fee_other_desc",
    ),
    "allocation": ("last_upd_date", "asset_seq", "asset_name", "asset_ratio"),
    "urls": ("last_upd_date", "url_halfyear_report", "url_annual_report", "url_factsheet"),
    "licensee": ("last_upd_date", "unique_id", "name_th", "name_en"),
    "approval": ("last_upd_date", "regis_sale_no", "lic_code", "effective_date", "expire_date", "privilege_type"),
    "duty": (
        "last_upd_date", "company_unique_id", "person_unique_id", "lic_action_code", "action_start_date",
        "action_end_date",
    ),
    "enforcement": (
        "last_upd_date", "enforcement_relevant_section_law", "enforcement_summarized_facts", "enforcement_date",
        "enforcement_details", "enforcement_remark",
    ),
    "alert": ("last_upd_date", "case_id", "seq_no", "license_th", "license_en"),
    # Published only by the current service (successor-api.md 4.11, 4.12).
    "person": (
        "last_upd_date", "unique_id", "regis_sale_no", "prefix_th", "givenname_th", "surname_th", "prefix_en",
        "givenname_en", "surname_en",
    ),
    "company_licence": (
        "last_upd_date", "lic_no", "lic_code", "lic_name_th", "lic_name_en", "acc_type", "apply_type",
        "effective_date", "expire_date",
    ),
    "business_activity": (
        "last_upd_date", "lic_code", "lic_name_th", "lic_name_en", "lic_action_code", "lic_action_name_th",
        "lic_action_name_en", "acc_type", "action_start_date", "action_status", "action_remark",
    ),
    "enforcement_case": ("last_upd_date", "enforcement_type", "case_id"),
    "alert_case": (
        "last_upd_date", "case_id", "disclosure_date", "name_th", "name_en", "address_th", "address_en",
        "persuade_desc", "website", "facebook", "line", "remark",
    ),
    "amc": ("unique_id", "comp_name_en", "comp_name_th", "last_upd_date"),
    # Published only by the current service, with no legacy record (successor-api.md 4.12), in captured order.
    "nav": (
        "proj_id", "unique_id", "fund_class_name", "nav_date", "net_asset", "last_val", "sell_price", "buy_price",
        "sell_swap_price", "buy_swap_price", "last_upd_date",
    ),
    "dividend": (
        "proj_id", "unique_id", "class_abbr_name", "book_close_date", "dividend_date", "dividend_value", "last_upd_date",
    ),
    "top_holding": (
        "proj_id", "start_date", "end_date", "prospectus_type", "asset_seq", "asset_name", "asset_ratio", "last_upd_date",
    ),
    "asset_type": ("proj_id", "period", "assetliab_code", "assetliab_desc", "market_value", "percent_nav"),
}
RECORD_KINDS: tuple[str, ...] = tuple(SPEC_FIELDS)
# Kinds the records layer reads (the real captures test them) that no endpoint of the product asks for yet.
UNREQUESTED_KINDS: tuple[str, ...] = ("top_holding", "asset_type")
# Kinds only the current service publishes, with no legacy record (successor-api.md 4.12).
SUCCESSOR_ONLY_KINDS: tuple[str, ...] = ("nav", "dividend", "top_holding", "asset_type")

# Value types. CODE fields also get <field>_label_en and <field>_label_th.
TEXT, NUMBER, INTEGER, DATE, DATETIME, DATE_OR_TEXT, BASE64, CODE, BOOL = (
    "text", "number", "integer", "date", "datetime", "date_or_text", "base64", "code", "bool",
)

_FIELD_TYPES: dict[str, str] = {
    "last_upd_date": DATETIME,
    **dict.fromkeys(
        (
            "minimum_sub_ipo", "minimum_sub", "minimum_redempt", "minimum_redempt_unit", "lowbal_val", "lowbal_unit",
            "assetliab_value", "percent_nav", "asset_ratio", "performance_val", "total_estimated_return",
            "annual_estimated_expense", "annual_average_return", "investment_period_year",
            "investment_period_month", "proj_term_dd", "proj_term_mm", "proj_term_yy", "net_asset", "last_val",
            "sell_price", "buy_price", "sell_swap_price", "buy_swap_price", "dividend_value", "market_value",
        ),
        NUMBER,
    ),
    "asset_seq": INTEGER,
    **dict.fromkeys(
        (
            "regis_date", "cancel_date", "as_of_date", "effective_date", "expire_date", "action_start_date",
            "action_end_date", "enforcement_date", "disclosure_date", "nav_date", "book_close_date", "dividend_date",
            "start_date", "end_date",
        ),
        DATE,
    ),
    **dict.fromkeys(("fund_suitable_desc", "fund_not_suitable_desc", "important_notice", "risk_spectrum_desc"), BASE64),
    **dict.fromkeys(
        ("fund_status", "invest_country_flage", "risk_spectrum", "proj_retail_type", "proj_term_flag", "redemp_period",
         "privilege_type", "action_status"),
        CODE,
    ),
}
# The performance as-of date is free text in the specification: an ISO date when it reads as one.
_KIND_FIELD_TYPES: dict[str, dict[str, str]] = {"performance": {"as_of_date": DATE_OR_TEXT},
                                                # a YYYYMM month, sent as a JSON integer (successor-api.md 4.12)
                                                "asset_type": {"period": INTEGER}}

# Other spellings of a field -> the payload spelling. The alias key is kept too, normalised alike.
ALIASES: dict[str, dict[str, str]] = {
    "fund": {"invest_country_flag": "invest_country_flage"},
    "nav": {"class_abbr_name": "fund_class_name"},  # the older service's one-day NAV record
}
COMMON_ALIASES = {"last_updated": "last_upd_date"}  # the field list's name in the alert record


def _labels_of(*fields: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{field}_label_{lang}", TEXT) for field in fields for lang in ("en", "th"))


# Fields each kind adds, with their types, in column order.
_ADDED: dict[str, tuple[tuple[str, str], ...]] = {
    "fund": _labels_of("fund_status", "invest_country_flage"),
    "holding": (("is_nav_total", BOOL),),
    "project_type": _labels_of("proj_retail_type", "proj_term_flag"),
    "suitability": (*_labels_of("risk_spectrum"), ("risk_level_label", TEXT), ("risk_rank", INTEGER)),
    "performance": (
        ("is_class_fund", BOOL),
        ("performance_kind", TEXT),
        *_labels_of("performance_kind"),
        ("reference_period_order", INTEGER),
        *_labels_of("reference_period"),
    ),
    "redemption": _labels_of("redemp_period"),
    "fee": (
        ("is_class_fund", BOOL),
        ("fee_type_th", TEXT),
        ("fee_type_en", TEXT),
        ("fee_kind", TEXT),
        ("rate_num", NUMBER),
        ("actual_value_num", NUMBER),
    ),
    "approval": (*_labels_of("privilege_type"), ("approval_state", TEXT)),
    "duty": (("is_current", BOOL),),
    "person": (("name_th", TEXT), ("name_en", TEXT)),
    "company_licence": (("approval_state", TEXT),),
    "business_activity": _labels_of("action_status"),
    "enforcement_case": _labels_of("enforcement_type"),
    "asset_type": (("is_nav_total", BOOL),),
}
ADDED_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name, _type in _ADDED.get(kind, ())) for kind in RECORD_KINDS
}

# holding rows with this assetliab_id are the NAV total line, not a holding (real-world-notes.md).
NAV_TOTAL_ASSETLIAB_ID = 903


def spec_fields(kind: str) -> tuple[str, ...]:
    try:
        return SPEC_FIELDS[kind]
    except (KeyError, TypeError):
        raise ValueError(f"unknown record kind {kind!r}; known: {', '.join(RECORD_KINDS)}") from None


def field_type(kind: str, field: str) -> str | None:
    """The value type of a specification or added field of a kind; None for anything else."""
    if field in spec_fields(kind):
        return _KIND_FIELD_TYPES.get(kind, {}).get(field) or _FIELD_TYPES.get(field, TEXT)
    return dict(_ADDED.get(kind, ())).get(field)

