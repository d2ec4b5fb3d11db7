//! Placeholder: filled by the documents work (paths, atomic writes, provenance, replacements, remember).
