"""The shipped assets; an installed wheel carries this folder as the package `stepformer_assets` (engine/assets.py)."""
