# dist.mk -- `make dist`: the release tarball mempi-<version>.tar.gz.  MemPI, BSD-3-Clause
# (see LICENSE).
#
# The tarball holds exactly the files git tracks, as they are in the working tree (edits not
# yet committed included: `git stash create` records them in a commit object without touching
# the tree, the index or the stash list), under one top directory mempi-<version>/.  Build
# products are never tracked (.gitignore), so the tarball has none and builds with `make`
# after unpacking; contrib/spack/package.py builds from it.  It is written to $(DIST)/ (the
# directory `make wheel` uses).  Where this directory is not the top of a git checkout (an
# unpacked tarball, perhaps inside another checkout) there is no file list to trust, so the
# rule stops with a message.
DIST_NAME    := mempi-$(VERSION)
DIST_TARBALL := $(DIST)/$(DIST_NAME).tar.gz

.PHONY: dist
dist:
	@[ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] || \
	    { echo "make dist: $(CURDIR) is not the top of a git checkout; the tarball is made from git's list of files" >&2; exit 1; }
	@mkdir -p $(DIST)
	tree=$$(git stash create); \
	git archive --format=tar.gz --prefix=$(DIST_NAME)/ -o $(DIST_TARBALL) $${tree:-HEAD}
	@echo "make dist: wrote $(DIST_TARBALL)"
