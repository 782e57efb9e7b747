//! Unit tests of the checks on hand-built facts.
