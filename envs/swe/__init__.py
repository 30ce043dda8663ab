"""SWE environments: repositories and Harbor tasks in containers, graded in fresh ones."""
