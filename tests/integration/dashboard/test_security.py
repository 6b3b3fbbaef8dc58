"""A cross-site navigation may reach the dashboard's page (it holds no data), never anything else."""

from __future__ import annotations

from tests.support.dashboard import Dashboard


def test_a_cross_site_navigation_gets_the_page_and_nothing_more(git_repo):
    """Sec-Fetch-Site: cross-site (Chromium's label for the launch page's file:// redirect): the page and its script are
    served; the code exchange and every API call are still refused (403)."""
    cross = {"Sec-Fetch-Site": "cross-site"}
    with Dashboard(git_repo, session=False) as dash:
        assert dash.request("GET", "/", headers=cross, auth=False)[0] == 200
        assert dash.request("GET", "/static/app.js", headers=cross, auth=False)[0] == 200
        status, _, _ = dash.request("POST", "/api/session", {"code": dash.code}, headers=cross, auth=False)
        assert status == 403
        assert dash.request("GET", "/api/runs", headers=cross)[0] == 403
