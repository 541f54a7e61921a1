"""`sec-dashboard licensee ...`: the licence register: companies, approved persons, enforcement, investor alerts."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from dashboard.cli.output import EXIT_OK, emit, print_readable
from dashboard.cli.service import COMPANY_FINDER, PERSON_FINDER, answer, identifier, shared_client
from dashboard.cli.terminal import err, out
from dashboard.errors import quoted
from dashboard.models.source import run


def add_licensee_commands(sub, add: Callable[..., argparse.ArgumentParser], as_json) -> None:
    """`licensee` and its actions on the command line's subcommands (`add` is the command line's own helper)."""
    lic = sub.add_parser("licensee", help="licence register: licensed companies, approved persons, enforcement, investor alerts").add_subparsers(dest="licensee_command", required=True, metavar="ACTION")
    add(lic, "search", cmd_licensee_search, "licensed companies by part of a name", as_json).add_argument("name")
    add(lic, "former", cmd_licensee_former, "entities that once held a licence", as_json)
    add(lic, "person", cmd_licensee_person, "a person's approvals and current duties, with a warning for a duty held past its approval", as_json).add_argument("unique_id")
    enf = add(lic, "enforcement", cmd_licensee_enforcement, "an enforcement action", as_json)
    enf.add_argument("--wide", action="store_true", help="long texts on one line each (they wrap by default)")
    enf.add_argument("unique_id")
    enf.add_argument("case_id")
    add(lic, "alert", cmd_licensee_alert, "an investor-alert case", as_json).add_argument("case_id")
    add(lic, "person-search", cmd_licensee_person_search, "approved persons by part of a name or a registration number "
        "(current service)", as_json).add_argument("name")
    add(lic, "company", cmd_licensee_company, "a company's licences, personnel and business activities (current service)",
        as_json).add_argument("unique_id")
    add(lic, "cases", cmd_licensee_cases, "the enforcement cases of a person or company (current service)",
        as_json).add_argument("unique_id")
    add(lic, "alerts", cmd_licensee_alerts, "every investor-alert case (current service)", as_json)


def cmd_licensee_search(args) -> int:
    rows = answer(args, "E15", name=args.name)
    return emit(args, rows or [], "licensee", empty_note=f"no licensed company matches {quoted(args.name)}")


def cmd_licensee_former(args) -> int:
    check = licence_check(args)
    run(check.load_former())
    return emit(args, check.records["former"], "licensee", empty_note="no former licensees are listed")


def cmd_licensee_person(args) -> int:
    from dashboard.models.licensee import amc_names, duties_past_approval

    args.unique_id = identifier(args.unique_id, "person", PERSON_FINDER)
    check = licence_check(args)
    run(check.load_person(args.unique_id))
    approvals, duties = check.records["approvals"], check.records["duties"]
    flagged = duties_past_approval(check.approvals, check.duties, check.api.today)
    warnings = [str(r) for r in flagged["reason"]]
    data = {"unique_id": args.unique_id, "approvals": approvals, "duties": duties}
    note = check.message
    if args.json:
        return emit(args, {**data, "warnings": warnings} if warnings else data, empty_note=note)
    names = {**amc_names(check.api), **check.company_names()} if duties else {}
    out(f"person {args.unique_id}: approvals")
    print_readable(approvals, "approval")
    out("current duties")
    print_readable(duties, "duty", names=names)
    for (_, row), reason in zip(flagged.iterrows(), warnings):
        company = names.get(row["company_unique_id"], row["company_unique_id"])
        out(f"warning: {reason} (at {company})")
    if note:
        err(f"no data: {note}")
    return EXIT_OK


def cmd_licensee_enforcement(args) -> int:
    """One case (E19); read, with the kind of action its case list names and what its date, details and remark
    then are (as the Licensee tab and the licence report show it). --json gives the service's record as sent."""
    from dashboard.models.licensee import enforcement_meanings, kind_label

    args.unique_id = identifier(args.unique_id, "person or company", PERSON_FINDER)
    check = licence_check(args)
    record = run(check.load_enforcement(args.unique_id, args.case_id))
    meanings = enforcement_meanings(check.enforcement_kind)
    if record and meanings and not args.json:
        record = {"enforcement_type": f"{kind_label(check.enforcement_kind)}, as the case list names it",
                  "how_to_read_it": f"the date is the {meanings['date'][1]}; the details are the "
                                    f"{meanings['details'][1]}; the remark is the {meanings['remark'][1]}", **record}
    return emit(args, record, empty_note=f"no enforcement action {args.case_id} for {args.unique_id}")


def cmd_licensee_alert(args) -> int:
    record = answer(args, "E20", case_id=args.case_id)
    return emit(args, record, empty_note=f"no investor alert {args.case_id}")


def licence_check(args):
    from dashboard.models.licensee import LicenceCheck

    return LicenceCheck(client=shared_client(args))


def _emit_rows(args, rows: list, kind: str, note: str) -> int:
    return emit(args, rows, kind, empty_note="" if rows else note)


def cmd_licensee_person_search(args) -> int:
    check = licence_check(args)
    run(check.search_people(args.name))
    return _emit_rows(args, check.records["people"], "person", f"no approved person matches {quoted(args.name)}")


def cmd_licensee_company(args) -> int:
    args.unique_id = identifier(args.unique_id, "company", COMPANY_FINDER)
    check = licence_check(args)
    run(check.load_company(args.unique_id))
    data = {"unique_id": args.unique_id, **{part: check.records[part] for part in ("licences", "personnel", "business")}}
    note = check.message
    if args.json:
        if note:
            err(f"no data: {note}")
        return emit(args, data)
    from dashboard.models.licensee import amc_names

    name = amc_names(check.api).get(args.unique_id) or run(check.load_register_names()).get(args.unique_id)
    who = f"{name} ({args.unique_id})" if name else f"company {args.unique_id}"
    for title, rows, kind, none in (
            ("licences and registrations", data["licences"], "company_licence", "no licence or registration is recorded"),
            ("personnel on duty", data["personnel"], "duty", "nobody is recorded on duty at this company"),
            ("business activities", data["business"], "business_activity", "no business activity is recorded")):
        out(f"{who}: {title}")
        if rows:
            print_readable(rows, kind)
        else:
            out(f"  ({none})")  # under its heading: a heading with nothing under it reads as output cut short
    if note:
        err(f"no data: {note}")
    return EXIT_OK


def cmd_licensee_cases(args) -> int:
    args.unique_id = identifier(args.unique_id, "person or company", PERSON_FINDER)
    check = licence_check(args)
    run(check.load_cases(args.unique_id))
    return _emit_rows(args, check.records["cases"], "enforcement_case", f"no enforcement cases are recorded for {args.unique_id}")


def cmd_licensee_alerts(args) -> int:
    check = licence_check(args)
    run(check.load_alert_cases())
    return _emit_rows(args, check.records["alert_cases"], "alert_case", "the service lists no investor-alert cases")
