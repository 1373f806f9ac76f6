"""llama-cpp-python's grammar-first sampler against the one that checks the grammar on the chosen token only.

    PYTHONPATH=. python bench/grammar_sampler.py

The say prompt (prompts/say_system.md, say_user.md) for two questions, each at temperatures 0.1 and 0.8 with two
seeds, held to the say grammar, decoded once with each sampler on two threads: decoding speed, and whether the
replies are the same.
"""

from __future__ import annotations

import sys
import time

from llama_cpp import Llama, LlamaGrammar

from chat.pipeline.say import say_grammar
from chat.providers.lazy_grammar import lazy_llama_class
from indexing.settings import ScholarSettings
from prompts import load_prompt

QUESTIONS = [
    ("[1] The eye is burning, sights are burning, eye consciousness is burning.\n"
     "[2] Burning with the fires of greed, hate and delusion.", "What is burning?"),
    ("[1] “Suppose, mendicants, a person was struck by an arrow. But then they were struck by a second arrow, so they "
     "experienced the pain of two arrows.\n[2] In the same way, when an unlearned ordinary person experiences a "
     "painful feeling, they sorrow and wail and lament, beating their breast and falling into confusion. They "
     "experience two feelings: physical and mental.", "In the simile of the two arrows, what is the second arrow?"),
]
RUNS = [(0.1, 1), (0.1, 2), (0.8, 3), (0.8, 4)]


def main() -> int:
    from chat.providers.model_files import model_path

    path = str(model_path(ScholarSettings().model_dir))
    system = load_prompt("say_system").strip()
    replies: dict[str, list[str]] = {}
    for cls in (Llama, lazy_llama_class()):
        llama = cls(model_path=path, n_ctx=4096, n_threads=2, n_threads_batch=2, n_batch=512, verbose=False)
        seconds, tokens = 0.0, 0
        for lines, question in QUESTIONS:
            user = load_prompt("say_user", lines=lines, question=question, hints="")
            prompt = (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                      "<|im_start|>assistant\n")
            for temperature, seed in RUNS:
                grammar = LlamaGrammar.from_string(say_grammar(2), verbose=False)
                text, first = "", None
                for chunk in llama.create_completion(prompt, max_tokens=90, temperature=temperature, top_p=0.9,
                                                     repeat_penalty=1.05, stream=True, grammar=grammar, seed=seed):
                    text += chunk["choices"][0]["text"]
                    tokens += 1
                    first = first or time.perf_counter()
                seconds += time.perf_counter() - (first or time.perf_counter())
                replies.setdefault(f"{question} t={temperature} seed={seed}", []).append(text)
        sys.stdout.write(f"{cls.__name__}: {tokens / seconds:.1f} tokens a second\n")
    same = sum(a == b for a, b in replies.values())
    sys.stdout.write(f"identical replies: {same} of {len(replies)}\n")
    for key, (a, b) in replies.items():
        if a != b:
            sys.stdout.write(f"{key}\n  grammar first: {a!r}\n  grammar on the chosen token: {b!r}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
