"""Keeping an install right from the operator's side: the Claude Code hook, upgrades,
uninstall, catalog migrations, answers, releases and the template source."""
