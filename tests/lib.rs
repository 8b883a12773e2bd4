//! Shared helpers for hlox's integration tests.
