"""eco-mem's maintenance tools: stdlib only, Python 3.9+. Entry point: ../eco_mem.pyz."""
