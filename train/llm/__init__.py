"""Language models on the deduction games (issue 66): a chat client for any OpenAI-compatible endpoint
(:mod:`.chat`), a local endpoint that answers with a reference agent through the text layer (:mod:`.endpoint`,
for tests and for trying the command without a model), and the evaluation command (:mod:`.evaluate`,
``python -m train.llm``)."""
