"""Verify's rules: each module checks one concern and returns findings; the gate runs them too."""
