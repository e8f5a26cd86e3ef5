//! Tests of the engine model: each term against a hand computation with its source.
