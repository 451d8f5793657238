"""What the install keeps right in the host: blocks, git tracking, upgrades, migrations."""
