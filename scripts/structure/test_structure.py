"""Each structure rule catches what it is for, and nothing else, on small trees made here.

    TOKEI=/path/to/tokei python3 -m unittest discover -s scripts/structure -p 'test_*.py'
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import errors  # noqa: E402
import layers  # noqa: E402
import links  # noqa: E402
import rust  # noqa: E402
import size  # noqa: E402

DOC = """# Architecture

### Layers of `demo/src`

| layer | modules | what |
|---|---|---|
| 3 | `http` | top |
| 2 | `index` | middle |
| 1 | `markdown` | bottom |

## After
"""


class Tree:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="structure-test."))

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def files(self) -> list[Path]:
        return sorted(p.relative_to(self.root) for p in self.root.rglob("*") if p.is_file())

    def close(self) -> None:
        shutil.rmtree(self.root)


class ReadingRust(unittest.TestCase):
    def test_comments_and_strings_are_blanked_with_their_lines_kept(self):
        text = 'let a = "crate::http"; // crate::index\n/* crate::x */ let b = r#"crate::y"#; \'c\'\n'
        blanked = rust.blank_comments_and_strings(text)
        self.assertNotIn("crate::", blanked)
        self.assertEqual(blanked.count("\n"), text.count("\n"))
        self.assertIn("let b", blanked)

    def test_use_trees_expand(self):
        self.assertEqual(rust.expand_use("crate::{a, b::{c, d}, e::self}"),
                         ["crate::a", "crate::b::c", "crate::b::d", "crate::e"])

    def test_a_lifetime_is_not_a_char(self):
        text = "fn f<'a>(x: &'a str) -> &'a str { crate::index::g() }"
        self.assertIn("crate::index", rust.blank_comments_and_strings(text))


class Layers(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.tree.write("docs/architecture.md", DOC)
        self.tree.write("demo/src/lib.rs", "pub mod http;\npub mod index;\npub mod markdown;\n")
        self.tree.write("demo/src/http.rs", "use crate::index::Store;\n")
        self.tree.write("demo/src/markdown.rs", "pub fn f() {}\n")
        self.tree.write("demo/src/index/mod.rs", "mod a;\nmod b;\npub use a::Store;\n")

    def tearDown(self):
        self.tree.close()

    def check(self) -> list[str]:
        return layers.check(self.tree.root, self.tree.root / "docs/architecture.md")

    def test_imports_down_the_layers_pass(self):
        self.tree.write("demo/src/index/a.rs", "use crate::markdown::f;\npub struct Store;\n")
        self.tree.write("demo/src/index/b.rs", "use super::a::Store;\n")
        self.assertEqual(self.check(), [])

    def test_an_import_up_is_named_with_its_file_and_line(self):
        self.tree.write("demo/src/index/a.rs", "pub struct Store;\n")
        self.tree.write("demo/src/index/b.rs", "\n\nfn g() { crate::http::serve(); }\n")
        found = self.check()
        self.assertTrue(any("index/b.rs:3: layers: `index` (layer 2) imports `http` (layer 3)" in e
                            for e in found), found)
        self.assertTrue(any("import circle among top-level modules http, index" in e for e in found), found)

    def test_files_of_one_folder_in_a_circle(self):
        self.tree.write("demo/src/index/a.rs", "use super::b::g;\npub struct Store;\n")
        self.tree.write("demo/src/index/b.rs", "pub fn g() { super::a::Store; }\n")
        found = self.check()
        self.assertEqual(len(found), 1, found)
        self.assertIn("import circle among demo/src/index/{a, b}.rs", found[0])

    def test_test_code_may_import_anything(self):
        self.tree.write("demo/src/index/a.rs", "pub struct Store;\n#[cfg(test)]\nmod tests {\n    use crate::http;\n}\n")
        self.tree.write("demo/src/index/b.rs", "#[cfg(test)]\nmod b_props;\n")
        self.tree.write("demo/src/index/b/b_props.rs", "use crate::http;\n")
        self.assertEqual(self.check(), [])

    def test_a_module_without_a_layer(self):
        self.tree.write("demo/src/index/a.rs", "pub struct Store;\n")
        self.tree.write("demo/src/index/b.rs", "")
        self.tree.write("demo/src/extra.rs", "")
        self.assertTrue(any("module `extra` has no layer" in e for e in self.check()))


class Errors(unittest.TestCase):
    def test_string_and_boxed_errors_are_named(self):
        tree = Tree()
        try:
            tree.write("c/src/lib.rs", """\
                pub fn ok() -> Result<u8, MyError> { todo!() }
                pub fn bad(
                    x: u8,
                ) -> Result<
                    Vec<u8>,
                    String,
                > { todo!() }
                pub fn nested() -> Result<HashMap<String, u8>, Error> { todo!() }
                pub struct E(Box<dyn std::error::Error + Send + Sync>);
                #[cfg(test)]
                mod tests { fn t() -> Result<(), String> { Ok(()) } }
                """)
            found = errors.check(rust.load_crate(tree.root / "c/src"))
            self.assertEqual(len(found), 2, found)
            self.assertIn("lib.rs:4: errors: Result<_, String>", found[0])
            self.assertIn("lib.rs:9: errors: Box<dyn Error>", found[1])
        finally:
            tree.close()


@unittest.skipUnless(os.environ.get("TOKEI"), "TOKEI names the tokei binary (the test command sets it)")
class Size(unittest.TestCase):
    def test_over_the_limit_counts_code_only_and_skips_tests_and_generated_files(self):
        tree = Tree()
        try:
            code = "".join(f"let v{i} = {i};\n" for i in range(601))
            tree.write("a/big.ts", code)
            tree.write("a/commented.ts", "// a comment\n\n" * 700 + "let x = 1;\n")
            tree.write("a/big.test.ts", code)
            tree.write("a/schema.ts", "// This file was auto-generated by a tool.\n" + code)
            tree.write("a/lib.rs", "fn f() {}\n#[cfg(test)]\nmod tests {\n" + "    fn t() {}\n" * 700 + "}\n")
            # A char literal tokei reads as an open string, before a long test module.
            tree.write("b/quote.rs", "fn q(c: char) -> bool {\n    c == '\"'\n}\n#[cfg(test)]\nmod tests {\n"
                       + "    fn t() {}\n\n" * 400 + "}\n")
            tree.write("a/e2e/flow.ts", code)
            found = size.check(tree.root, tree.files(), os.environ["TOKEI"])
            self.assertEqual(found, ["a/big.ts:1: size: 601 lines of code, over 600; split it by meaning"])
        finally:
            tree.close()


class Links(unittest.TestCase):
    def test_missing_files_unlinked_pages_and_a_long_readme(self):
        tree = Tree()
        try:
            tree.write("README.md", "See [one](docs/one.md) and [web](https://example.com).\n" + "x" * 15_000)
            tree.write("docs/one.md", "[back](../README.md#top)\n\n[gone](missing.md)\n\n```\n[in code](nope.md)\n```\n`[span](nope.md)`\n")
            tree.write("docs/two.md", "[one](one.md)\n")
            found = links.check_readme_size(tree.root) + links.check(tree.root, tree.files())
            self.assertEqual(found, [
                "README.md:1: docs: 15055 bytes, over 15000; move detail to a page under docs/",
                "docs/one.md:3: links: missing.md points at a file that does not exist",
                "docs/two.md:1: docs: not linked from README.md; link it there or fold it into a page that is",
            ])
        finally:
            tree.close()


if __name__ == "__main__":
    unittest.main()
