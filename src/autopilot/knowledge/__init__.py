"""Knowledge a person vouched for: approved durable rules and their sharing with a team.

- :mod:`.durable`: candidates, and the decisions only a person makes (approve, revoke, supersede);
- :mod:`.share`: packets and approved rules shared through the project's own git remote.

It sits above the handoff (a rule can come from a packet's constraint; approved rules reach the active memory's
injection) and never imports the autopilot loop. Importing the package loads nothing.
"""
