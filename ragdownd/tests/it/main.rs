//! ragdownd's integration tests: the real binary over stdio, the real HTTP server on an ephemeral
//! port, and a real LanceDB in temp dirs. Most use the `hash` embedder (no model); `minilm` tests
//! need the model that the test command installs.

mod access;
mod api;
mod api_browse;
mod api_docs;
mod api_dropin;
mod api_settings;
mod cjk;
mod context;
mod context_rules;
mod dense;
mod faults;
mod heading_vectors;
mod health;
mod history;
mod hostile;
mod http;
mod index;
mod language;
mod load;
mod minilm;
mod move_tool;
mod notifications;
mod oauth;
mod remote;
mod resources;
mod search;
mod stdio;
mod structured;
mod support;
mod targeted;
mod tools_golden;
mod trust;
mod vector_index;
mod web;
mod write;
