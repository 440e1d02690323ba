"""Deliver a migration as a git branch: check the repo, plan and write commits, leave the user's
branch, index and working tree untouched. See README.md for the files."""
