from mtcli.cli import main

main()
