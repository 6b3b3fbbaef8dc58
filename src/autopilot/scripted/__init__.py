"""Scripted model servers: stand-ins for OpenAI and Anthropic that run on 127.0.0.1."""
