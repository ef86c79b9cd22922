"""Real text in, faithful translation out: the steps between what a user gives and what the model reads.

read (bytes -> lines), normalize (one canonical form, also for training), segment (sentences, pieces
that fit the model), kinds (the table of spans kept), protect (spans found, masked, restored), labels
("Note: ", "Tom: "), case (ALL CAPS, lowercase, loose typing), formats/ (SRT, Markdown, HTML around the
text), sentence (options, Engine, the sentence record and the Stage protocol), the stages (heads, edges,
floating, spans, punctuation, casing), quotes, markup and rewrap (markup in a sentence), retry (the
placeholder ladder), lines (what is done to a whole line), pipeline (the stages in order, through any
decode function).
"""
