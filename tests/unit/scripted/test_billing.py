"""scripted/billing.py: what a provider bills a call for: its whole prompt, the cached prefix, the history carried."""

from __future__ import annotations

from autopilot.scripted.billing import (
    CACHE_BLOCK_TOKENS,
    CACHE_MIN_TOKENS,
    CHARS_PER_TOKEN,
    Ledger,
    PrefixCache,
    input_items,
    item_text,
    tokens,
)

ANSWER = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi!"}]}]


def test_tokens_are_characters_over_four_rounded_up():
    """1 to 4 characters are a token, 5 are two; nothing is none."""
    assert [tokens(n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]


def test_only_the_text_a_model_reads_is_counted():
    """Ids, kinds, roles and states are not text; nested content is, in order; None and booleans are nothing."""
    item = {"id": "msg_1", "type": "message", "role": "user", "content": [{"type": "input_text", "text": "ab"}, "cd"]}
    assert (item_text(item), item_text([None, True, 12, "x"])) == ("abcd", "12x")
    assert input_items({"input": "plain"}) == [("user", "plain")] and input_items({}) == []


def test_a_call_bills_its_whole_prompt_and_its_answer():
    """Instructions and input are the prompt; the answer's text is the output."""
    ledger = Ledger()
    bill = ledger.bill("r1", {"instructions": "be brief", "input": "hello there"}, ANSWER)
    assert bill == {"input_tokens": tokens(8 + 11), "cached_tokens": 0, "output_tokens": 1, "history_tokens": 0}
    assert ledger.bills == [bill]


def test_a_follow_up_carries_the_conversation_it_names_as_history():
    """A previous_response_id stands for that call's input and answer: billed again, and counted as history."""
    ledger = Ledger()
    ledger.bill("r1", {"instructions": "be brief", "input": "hello there"}, ANSWER)
    follow = {
        "instructions": "be brief",
        "input": [{"role": "user", "content": "and again"}],
        "previous_response_id": "r1",
    }
    assert ledger.conversation(follow) == "hello therehi!and again"
    bill = ledger.bill("r2", follow, [{"type": "message", "content": "ok"}])
    assert (bill["input_tokens"], bill["history_tokens"]) == (tokens(8 + 14 + 9), tokens(14))


def test_items_sent_again_are_history_but_a_clients_own_system_prompt_is_not():
    """A re-sent user item counts as history; the developer message every call repeats does not."""
    ledger = Ledger()
    system = {"role": "developer", "content": "you review code"}
    ledger.bill("r1", {"input": [system, {"role": "user", "content": "hello there"}]}, [])
    bill = ledger.bill("r2", {"input": [system, {"role": "user", "content": "hello there"}, "new"]}, [])
    assert bill["history_tokens"] == tokens(len("hello there"))


def test_an_unstored_response_cannot_be_continued():
    """With store false the provider keeps nothing: a follow-up naming it carries no history."""
    ledger = Ledger()
    ledger.bill("r1", {"input": "remember this", "store": False}, ANSWER)
    assert ledger.bill("r2", {"input": "x", "previous_response_id": "r1"}, [])["history_tokens"] == 0


def test_a_stated_usage_replaces_the_counted_tokens_but_not_the_history():
    """A scripted step's own usage wins; what the call carried is still counted."""
    ledger = Ledger()
    ledger.bill("r1", {"input": "hello there"}, ANSWER)
    bill = ledger.bill("r2", {"input": "x", "previous_response_id": "r1"}, [], {"input_tokens": 7, "output_tokens": 2})
    assert (bill["input_tokens"], bill["output_tokens"], bill["history_tokens"]) == (7, 2, tokens(14))


def test_a_long_prompts_repeated_prefix_is_billed_as_cached_in_whole_blocks():
    """From CACHE_MIN_TOKENS on, the leading blocks an earlier prompt shared are cached; never more than the input."""
    block = CACHE_BLOCK_TOKENS * CHARS_PER_TOKEN
    shared = "".join(chr(65 + n % 26) for n in range(CACHE_MIN_TOKENS * CHARS_PER_TOKEN + block // 2))
    cache = PrefixCache()
    assert cache.cached_tokens(shared + "first ending") == 0
    cached = cache.cached_tokens(shared + "second ending, a little longer")
    assert cached == (len(shared) // block) * CACHE_BLOCK_TOKENS <= tokens(len(shared))


def test_a_short_prompt_is_never_cached():
    """Under CACHE_MIN_TOKENS tokens nothing is cached, however often the prompt repeats."""
    cache = PrefixCache()
    short = "z" * (CACHE_MIN_TOKENS * CHARS_PER_TOKEN - 4)
    assert [cache.cached_tokens(short) for _ in range(3)] == [0, 0, 0]
