#!/usr/bin/env bash
# ctest python.install: scripts/install into a scratch prefix and site directory, then a clean
# interpreter (no PYTHONPATH) that processes that directory's .pth files imports the package,
# as `python3 -c "import alknet; print(alknet.__version__)"` does after the README's setup.
#   install_check.sh PYTHON SCRATCH_DIR
set -euo pipefail
python=$1
scratch=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
rm -rf "$scratch"
mkdir -p "$scratch"
"$root/scripts/install" --python-site "$scratch/site" "$scratch/prefix"
test -f "$scratch/site/alknet.pth"
# -S: no site directories but the scratch one (a real install elsewhere must not answer), then
# numpy's directory after it.
numpy_dir=$(env -u PYTHONPATH "$python" -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')
version=$(env -u PYTHONPATH "$python" -S -c "
import site, sys
site.addsitedir(sys.argv[1])
site.addsitedir(sys.argv[2])
import alknet, os
assert alknet.__file__.startswith(open(os.path.join(sys.argv[1], 'alknet.pth')).read().strip()), alknet.__file__
print(alknet.__version__)" "$scratch/site" "$numpy_dir")
want=$(sed -n 's/^project(alknet VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ "$version" = "$want" ] || { echo "install_check: imported alknet $version, CMakeLists.txt says $want" >&2; exit 1; }
"$scratch/prefix/bin/alknet" --version >/dev/null 2>&1 || "$scratch/prefix/bin/alknet" --help >/dev/null
echo "install_check: import alknet -> $version"
