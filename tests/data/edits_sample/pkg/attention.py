import torch
import torch._dynamo


def attend(q, k, v):
    with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


compiled = torch._dynamo.optimize("eager")(attend)
