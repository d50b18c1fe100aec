"""The worked example, examples/python_quickstart.ipynb, executes end to end."""

import nbformat
from nbclient import NotebookClient


def test_the_quickstart_notebook_executes(root, tmp_path):
    path = root / "examples" / "python_quickstart.ipynb"
    nb = nbformat.read(path, as_version=4)
    # Run where it cannot write into the repository; the kernel is this interpreter's.
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "ConfigError:" in text and "traffic.load" in text
    assert "the Dask sweep equals the threaded one" in text
