"""How the engine reads and writes files: lessons (.stepformer archives), weights, Hugging Face checkpoints and
their tokenizers, the autosave journal and recovery folder, and the safe readers and atomic writer beneath them."""
