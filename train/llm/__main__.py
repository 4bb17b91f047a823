import sys

from train.llm.evaluate import main

sys.exit(main())
