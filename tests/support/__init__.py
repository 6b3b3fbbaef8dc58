"""Helpers the tests share: real agents, the in-process CLI, scripted servers, fixture builders."""
