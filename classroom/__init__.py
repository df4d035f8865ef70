"""Class mode's store: classes, members, questions and votes in a real database (SQLite file by default,
PostgreSQL when ATTENTION_LAB_DATABASE_URL is set), through SQLAlchemy Core.

Streamlit-free (import-linter: it may use core/ and lessons/ to build and grade quiz questions, never ui/ or
pages/), so the tests, the benchmarks and several app processes all use the same code. The Streamlit glue is
ui/classmode/.

- codes.py      class codes (read aloud), teacher keys (only their hash is stored), student ids
- schema.py     the tables and the ordered migrations the app runs itself (schema_version)
- store.py      ClassStore: every read and write of a class, each refusal as a ClassError with a reason id
- limits.py     the bounds on what a client may send (nickname, answer, rate of actions)
- questions.py  quiz questions for a class: built from the teacher's settings by lessons.quiz, graded the same way
"""

from classroom.store import ClassError, ClassStore, open_store

__all__ = ["ClassError", "ClassStore", "open_store"]
