"""Real text in, faithful translation out: the steps between what a user gives and what the model reads.

read (bytes -> lines), normalize (one canonical form, also for training), segment (sentences, pieces
that fit the model), labels ("Note: ", "Tom: "), protect (spans kept exactly), case (ALL CAPS, lowercase,
loose typing), formats (SRT, Markdown, HTML around the text), pipeline (the steps in order, through any
decode function).
"""
