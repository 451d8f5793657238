DESCRIPTION = ""


def add_arguments(p):
    p.add_argument("--root")


def run(root, args):
    return 0
