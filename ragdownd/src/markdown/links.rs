//! Placeholder: Obsidian links (filled by the links work).
