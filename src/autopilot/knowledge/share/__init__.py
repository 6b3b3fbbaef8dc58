"""Sharing packets and approved rules with a team through the project's own git remote.

``codex-bridge share push | pull | list``. Everything travels in one ref of our own,
``refs/codex-autopilot/share`` (never a branch, never the index or the work tree), whose tree holds
content-addressed files only (:mod:`.layout`): ``packets/<sha256>.json`` with their evidence indexes, and
``rules/<sha256>.json``, the approved rules and decisions and their revocations. Two pushes at once lose
nothing: trees are unions of content-addressed names, and a rejected push is fetched, merged and retried
within a bound (:mod:`.push`). A teammate's remote is untrusted input: a pull verifies every name, size and
hash before anything is written, and refuses the whole pull when one fails (:mod:`.pull`). A shared rule is
delivered here only when the commit that brought it is signed with SSH by a signer listed in
``.codex-autopilot/allowed_signers`` as committed in this checkout's HEAD (:mod:`.trust`); anything else is a
candidate for a person here (:mod:`.rules`).
"""
