import os
import tempfile

import torch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never the real user's settings or autosave: a fresh folder for this test run (tests may point elsewhere).
os.environ["STEPFORMER_SETTINGS_DIR"] = tempfile.mkdtemp(prefix="stepformer-settings-")
os.environ["STEPFORMER_DATA_DIR"] = tempfile.mkdtemp(prefix="stepformer-data-")
# One thread: on a 2-core machine the tiny tensors here run faster (and reproducibly) without thread hand-offs.
torch.set_num_threads(1)
