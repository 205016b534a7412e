"""report.csv (reports.writers.report_csv): one row per object per frame, with the codes that name it."""
import csv
import io

from reports.writers import report_csv


def test_a_contact_names_both_players_and_the_findings_to_check_have_their_column():
    def obj(oid, team):
        return {"id": oid, "track_id": int(oid.split("-t")[-1]), "team": team, "x_yd": 150.0, "y_yd": 60.0,
                "sigma_yd": 0.3}
    frame = {"index": 7, "t": 0.28, "phase": "lineup",
             "players": [obj("red-t1", "red"), obj("blue-t2", "blue"), obj("red-t3", "red")],
             "umpires": [{"id": "U-t4", "track_id": 4, "x_yd": 150.0, "y_yd": 55.0, "sigma_yd": 0.2}],
             "violations": [{"code": "CONTACT_BEFORE_THROW_IN", "player": "red-t1", "opponent": "blue-t2",
                             "distance_yd": 1.1}],
             "to_check": [{"code": "FIVE_YARD", "player": "red-t3", "umpire": "U-t4", "distance_yd": 4.8}]}
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(report_csv({"frames": [frame]})))}
    assert rows["red-t1"]["violations"] == rows["blue-t2"]["violations"] == "CONTACT_BEFORE_THROW_IN"
    assert rows["red-t3"]["violations"] == "" and rows["red-t3"]["to_check"] == "FIVE_YARD"
    assert rows["red-t1"]["to_check"] == "" and rows["U-t4"]["to_check"] == ""
    # a frame from a report written before the list existed reads as empty
    del frame["to_check"]
    rows = list(csv.DictReader(io.StringIO(report_csv({"frames": [frame]}))))
    assert all(r["to_check"] == "" for r in rows)
