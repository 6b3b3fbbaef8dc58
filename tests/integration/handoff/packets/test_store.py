"""Packets: content addressing, verification, the store's refusals and its permissions."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from freezegun import freeze_time

from autopilot.digest import canonical
from autopilot.handoff.packets import store
from tests.support.handoff_env import git, run_json


def export(bridge, repo, session, *extra):
    """Run export and return its parsed answer."""
    code, answer, err = run_json(
        bridge, "handoff", "export", "--from", "claude", "--session", session, "--to", "codex", *extra, cwd=repo
    )
    assert code == 0, err
    return answer


def stored(pid: str) -> dict:
    """The stored packet's JSON."""
    return json.loads(store.resolve(pid).read_bytes())


def test_packet_is_canonical_json_named_by_its_sha256(bridge, repo, session):
    """The file holds canonical bytes whose sha256 is its name and id, outside the repo, read-only."""
    answer = export(bridge, repo, session)
    path = Path(answer["path"])
    data = path.read_bytes()
    assert answer["packet"] == "sha256:" + hashlib.sha256(data).hexdigest() == "sha256:" + path.stem
    assert data == canonical(json.loads(data))
    assert path.parent == Path(os.environ["AUTOPILOT_HOME"]) / "handoff" / "packets"
    assert not stat.S_IMODE(path.stat().st_mode) & 0o222
    assert Path(answer["evidenceIndex"]).exists()
    assert git(repo, "status", "--porcelain") == " M parser.py\n"


def test_preview_writes_nothing(bridge, repo, session):
    """--preview prints the packet and its would-be id but creates no file at all."""
    before = sorted(str(p) for p in Path(os.environ["AUTOPILOT_HOME"]).rglob("*") if "cache" not in p.parts)
    answer = export(bridge, repo, session, "--preview")
    after = sorted(str(p) for p in Path(os.environ["AUTOPILOT_HOME"]).rglob("*") if "cache" not in p.parts)
    assert (answer["written"], answer["packet"].startswith("sha256:"), after) == (False, True, before)


def test_same_session_at_the_same_time_gives_the_same_id(bridge, repo, session):
    """Building twice from unchanged sources at a frozen time yields one id: the content is the address."""
    with freeze_time("2026-12-01 09:00:00"):
        first = export(bridge, repo, session, "--preview")
        second = export(bridge, repo, session)
    assert first["packet"] == second["packet"]
    assert stored(second["packet"])["createdAt"] == "2026-12-01T09:00:00Z"


def test_inspect_reverifies_the_hash(bridge, repo, session):
    """inspect shows a packet only after re-deriving its hash and its evidence index's."""
    pid = export(bridge, repo, session)["packet"]
    code, answer, err = run_json(bridge, "handoff", "inspect", pid[:19], cwd=repo)
    assert (code, answer["packet"], answer["verified"], answer["importable"]) == (
        0,
        pid,
        {"packetHash": True, "evidenceIndex": True},
        True,
    )


def test_tampered_packet_is_refused(bridge, repo, session):
    """One changed byte makes inspect refuse the packet and say it was changed after export."""
    answer = export(bridge, repo, session)
    path = Path(answer["path"])
    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes().replace(b'"unreviewed"', b'"approved!!"'))
    code, _, err = run_json(bridge, "handoff", "inspect", answer["packet"], cwd=repo)
    assert code == 1 and "changed after export" in err


def test_rewritten_packet_under_its_new_hash_is_refused(bridge, repo, session):
    """A packet re-serialised and renamed to its new hash is refused as not canonical."""
    answer = export(bridge, repo, session)
    pretty = json.dumps(json.loads(Path(answer["path"]).read_bytes()), indent=1).encode()
    hexid = hashlib.sha256(pretty).hexdigest()
    folder = Path(answer["path"]).parent
    (folder / f"{hexid}.json").write_bytes(pretty)
    (folder / f"{hexid}.evidence.json").write_bytes(Path(answer["evidenceIndex"]).read_bytes())
    code, _, err = run_json(bridge, "handoff", "inspect", hexid, cwd=repo)
    assert code == 1 and "canonical form" in err


def test_swapped_evidence_index_is_refused(bridge, repo, session):
    """An evidence index that is not the one the packet names is refused."""
    answer = export(bridge, repo, session)
    ev = Path(answer["evidenceIndex"])
    os.chmod(ev, 0o644)
    ev.write_bytes(canonical({"entries": []}))
    code, _, err = run_json(bridge, "handoff", "inspect", answer["packet"], cwd=repo)
    assert code == 1 and "evidence index does not match" in err


def test_malformed_packet_ids_are_refused(bridge, repo):
    """An id that is not hex, or matches no packet, is refused before any file is opened."""
    assert "is not a packet id" in bridge("handoff", "inspect", "../../etc/passwd", cwd=repo)[2]
    assert "no packet" in bridge("handoff", "inspect", "sha256:" + "0" * 64, cwd=repo)[2]


def test_a_symlinked_packet_store_keeps_its_targets_permissions(bridge, repo, session, tmp_path):
    """Exporting into a packet store that is a symlink never changes the permissions of what it points to."""
    from autopilot import paths

    shared = tmp_path / "shared-store"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    store_dir = paths.handoff_dir() / "packets"
    store_dir.parent.mkdir(parents=True, exist_ok=True)
    store_dir.symlink_to(shared)
    export(bridge, repo, session)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert len(list(shared.glob("*.json"))) == 2
