import unittest

from slug import slugify


class SlugifyTest(unittest.TestCase):
    def test_simple(self) -> None:
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_punctuation_is_dropped(self) -> None:
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_extra_spaces(self) -> None:
        self.assertEqual(slugify("  many   spaces  "), "many-spaces")

    def test_digits_are_kept(self) -> None:
        self.assertEqual(slugify("Top 10 tips"), "top-10-tips")


if __name__ == "__main__":
    unittest.main()
