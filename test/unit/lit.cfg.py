# GoogleTest unit tests, run by lit so that one command runs every test.
import os

import lit.formats

config.name = "DIST-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.dist_obj_root, "test", "unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
