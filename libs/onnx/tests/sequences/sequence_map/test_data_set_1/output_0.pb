
outsJbR?ꭏ>