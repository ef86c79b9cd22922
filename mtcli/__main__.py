from mtcli.cli import main

if __name__ == "__main__":  # (not again in a decoder process that multiprocessing spawns)
    main()
